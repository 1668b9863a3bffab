// SPDX-License-Identifier: MIT
// src/render/object_groups.hpp — the layout seed 003's middle steps share (shaders/
// cubes_split_uniforms.wgsl), used by the split-uniforms, buffer-offsets and buffer-offsets-mapped
// strategies. Private to bindery.
//   One bind group per object (group 0), created once, bound before each draw:
//     0 texture, 1 sampler   the object's material's (GpuScene)
//     2 PerObjectUniforms    a window the strategy chooses: the object's own buffer
//                            (split-uniforms) or its window of one large buffer (buffer-offsets)
//     3 GlobalUniforms       FrameGroup's buffer, one writeBuffer per frame
//     4 MaterialUniforms     the material's window of MaterialGroups' buffer, written at start
//   Draws in object order, like the article and the naive strategy.
// setBindGroup calls per frame = objects; bind groups created = objects (FrameGroup and
// MaterialGroups make buffers only here). Each bind group is a memory mapping on lavapipe:
// check_bind_group_budget refuses more objects than vm.max_map_count allows.
#pragma once

#include "shared_groups.hpp"
#include "strategy.hpp"

#include "bindery/data/buffer_arena.hpp"
#include "bindery/encode/draw_list.hpp"
#include "bindery/data/dynamic_uniform_buffer.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace bindery::strategies {

/// The one bind group of the per-object layout (split-uniforms, buffer-offsets: every binding of
/// an object in one group, @group(0)).
inline constexpr uint32_t kObjectGroupIndex = 0;

/// Where one object's PerObjectUniforms live: a uniform buffer and the byte offset of the window
/// bound at binding 2 (a multiple of minUniformBufferOffsetAlignment; the window is SizeOf bytes).
struct ObjectWindow {
  WGPUBuffer buffer = nullptr;
  uint64_t offset = 0;
};

/// Every object's PerObjectUniforms in one large uniform buffer (seed 003, "one large uniform
/// buffer with buffer offsets"): object i at byte layout.offset_in_chunk(i) of buffer
/// layout.chunk_of(i). The stride is align_to(SizeOf, minUniformBufferOffsetAlignment), read from
/// the device: createBindGroup requires a uniform binding's offset to be a multiple of
/// minUniformBufferOffsetAlignment, the rule for dynamic offsets too, so
/// dynamic_uniform_slot_layout() gives it; a second buffer ("chunk") starts only where
/// maxBufferSize would be exceeded. Throws like dynamic_uniform_slot_layout and
/// Device::create_buffer (BufferTooLarge, ...).
struct LargeObjectBuffer {
  SlotLayout layout;
  std::vector<gpu::Buffer> chunks;  ///< UNIFORM | COPY_DST

  LargeObjectBuffer(const Device& device, uint64_t element_size, uint32_t count)
      : layout(dynamic_uniform_slot_layout(element_size, device.limits())) {
    for (uint32_t c = 0; c < layout.chunk_count(count); ++c)
      chunks.push_back(device.create_buffer("per-object uniforms (one large buffer)",
                                            layout.chunk_size_bytes(c, count),
                                            WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst));
  }
  ObjectWindow window(uint32_t object) const {
    return {chunks[layout.chunk_of(object)].get(), layout.offset_in_chunk(object)};
  }
};

class ObjectGroupStrategy : public Strategy {
 public:
  uint32_t draw_count() const override { return static_cast<uint32_t>(groups_.size()); }

  /// Draws [first, last) in object order; the tracker elides the repeated pipeline and mesh
  /// buffers, the object's bind group changes every draw.
  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last,
              Counters& counters) override {
    RenderPassState state(pass, counters, IntruderPolicy::build_default, &device_.limits());
    for (uint32_t i = first; i < last; ++i) {
      const GpuMesh& mesh = gpu_.meshes[scene_.objects[i].mesh];
      state.set_pipeline(pipeline_.get());
      state.set_bind_group(kObjectGroupIndex, groups_[i].get(), {}, Frequency::object, i);
      state.set_vertex_buffer(0, mesh.vertices, mesh.vertex_offset, mesh.vertex_bytes);
      state.set_index_buffer(mesh.indices, mesh.index_format, mesh.index_offset,
                             mesh.index_bytes);
      state.draw_indexed(mesh.index_count);
    }
  }

 protected:
  /// The shader, layout and pipeline, the frame and material buffers; refuses (ImplementationLimit)
  /// an object count over the device's bind group budget before creating anything per object.
  /// `name` labels the pipeline and errors.
  ObjectGroupStrategy(const Device& device, const Scene& scene, const GpuScene& gpu,
                      std::string_view name)
      : device_(device),
        scene_(scene),
        gpu_(gpu),
        name_(name),
        reflection_(reflect_checked(shaders::cubes_split_uniforms)),
        object_size_(reflection_.struct_layout("PerObjectUniforms").size),
        frame_(device, reflection_.struct_layout("GlobalUniforms"), SharedBindGroups::none),
        materials_(device, scene, gpu, reflection_.struct_layout("MaterialUniforms"),
                   SharedBindGroups::none),
        writer_(reflection_.struct_layout("PerObjectUniforms")) {
    check_bind_group_budget(device, scene.objects.size(),
                            fmt::format("{} strategy (one bind group per object)", name));
    // minBindingSize of each uniform = the reflected struct's SizeOf (WGSL §14.4).
    layout_ = create_bind_group_layout(
        device,
        {fmt::format("{} per-object", name),
         {{0, BindingKind::sampled_texture, kStageFragment, false, 0, "diffuseTexture"},
          {1, BindingKind::sampler, kStageFragment, false, 0, "diffuseSampler"},
          {2, BindingKind::uniform_buffer, kStageVertex, false, object_size_, "obj"},
          {3, BindingKind::uniform_buffer, kStageVertex, false, frame_.size(), "glb"},
          {4, BindingKind::uniform_buffer, kStageFragment, false, materials_.size(), "material"}}});
    WGPUBindGroupLayout layouts[] = {layout_.get()};
    pipeline_layout_ = create_pipeline_layout(device, layouts, name);
    module_ =
        device.create_shader_module("cubes_split_uniforms.wgsl", shaders::cubes_split_uniforms);
    pipeline_ = create_scene_pipeline(device, module_.get(), pipeline_layout_.get(), name_.c_str());
  }

  /// Creates one bind group per object, binding 2 at window(i) (call once the buffers exist).
  template <class WindowOf>
  void create_object_groups(WindowOf window) {
    groups_.reserve(scene_.objects.size());
    for (uint32_t i = 0; i < scene_.objects.size(); ++i) {
      const uint32_t material = scene_.objects[i].material;
      const ObjectWindow w = window(i);
      const WGPUBindGroupEntry e[] = {
          texture_group_entry(0, gpu_.views[scene_.materials[material].texture].get()),
          sampler_group_entry(1, gpu_.samplers[scene_.materials[material].sampler].get()),
          buffer_group_entry(2, w.buffer, w.offset, object_size_),
          buffer_group_entry(3, frame_.buffer(), 0, frame_.size()),
          buffer_group_entry(4, materials_.buffer(), materials_.offset(material),
                             materials_.size())};
      groups_.push_back(create_bind_group(device_, "object", layout_.get(), e));
    }
    with_context(fmt::format("creating the {} strategy's per-object bind groups", name_),
                 [&] { device_.check(); });
  }

  const Device& device_;
  const Scene& scene_;
  const GpuScene& gpu_;
  std::string name_;
  Reflection reflection_;
  uint64_t object_size_ = 0;  ///< WGSL SizeOf(PerObjectUniforms), bytes
  FrameGroup frame_;
  MaterialGroups materials_;
  ObjectWriter writer_;
  gpu::BindGroupLayout layout_;
  gpu::PipelineLayout pipeline_layout_;
  gpu::ShaderModule module_;
  gpu::RenderPipeline pipeline_;
  std::vector<gpu::BindGroup> groups_;  ///< one per object, in object order
};

}  // namespace bindery::strategies
