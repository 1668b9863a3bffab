// SPDX-License-Identifier: MIT
// src/render/by_frequency.hpp — the bind group layout by frequency of change that the
// dynamic-offsets, mapped-staging and render-bundles strategies share (seeds 000, 001, 003).
// Private to bindery.
//   group 0 (frame):    GlobalUniforms, one buffer, one writeBuffer per frame, bound once.
//   group 1 (material): texture + sampler + MaterialUniforms, written once at creation, one bind
//                       group per material; draws are sorted by material so each is bound once.
//   group 2 (object):   PerObjectUniforms for every object in one DynamicUniformBuffer: one
//                       bind group, a dynamic offset per draw, stride = align_to(SizeOf,
//                       device minUniformBufferOffsetAlignment), dirty slots flushed once a frame.
// setBindGroup calls per frame = 1 + materials used + objects. Offsets come from reflection.
// The strategies differ in how per-object bytes reach the buffer and how draws reach the pass.
#pragma once

#include "shared_groups.hpp"
#include "strategy.hpp"

#include "bindery/encode/draw_list.hpp"
#include "bindery/data/dynamic_uniform_buffer.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

namespace bindery::strategies {

/// Bind group indices (the WGSL @group) of the by-frequency layout (the by-frequency note: group
/// by how often data changes; shaders/cubes_by_frequency.wgsl).
namespace by_frequency_groups {
inline constexpr uint32_t kFrameGroup = 0;     ///< FrameGroup, once per pass
inline constexpr uint32_t kMaterialGroup = 1;  ///< MaterialGroups, per material
inline constexpr uint32_t kObjectGroup = 2;    ///< the object's uniforms at a dynamic offset
inline constexpr uint32_t kGroupCount = 3;     ///< groups of the pipeline layout
}  // namespace by_frequency_groups

class ByFrequencyStrategy : public Strategy {
 public:
  ByFrequencyStrategy(const Device& device, const Scene& scene, const GpuScene& gpu,
                      std::string_view name)
      : device_(device),
        gpu_(gpu),
        reflection_(reflect_checked(shaders::cubes_by_frequency)),
        frame_(device, reflection_.struct_layout("GlobalUniforms")),
        materials_(device, scene, gpu, reflection_.struct_layout("MaterialUniforms")),
        writer_(reflection_.struct_layout("PerObjectUniforms")) {
    DynamicUniformBufferDesc od;
    od.label = "per-object uniforms";
    od.element_size = reflection_.struct_layout("PerObjectUniforms").size;
    od.slot_count = static_cast<uint32_t>(scene.objects.size());
    od.binding = 0;
    od.visibility = kStageVertex | kStageFragment;
    objects_ = std::make_unique<DynamicUniformBuffer>(device, od);

    WGPUBindGroupLayout layouts[by_frequency_groups::kGroupCount] = {};
    layouts[by_frequency_groups::kFrameGroup] = frame_.layout();
    layouts[by_frequency_groups::kMaterialGroup] = materials_.layout();
    layouts[by_frequency_groups::kObjectGroup] = objects_->bind_group_layout();
    pipeline_layout_ = create_pipeline_layout(device, layouts, "by frequency");
    module_ = device.create_shader_module("cubes_by_frequency.wgsl", shaders::cubes_by_frequency);
    pipeline_ =
        create_scene_pipeline(device, module_.get(), pipeline_layout_.get(), "by frequency");

    // Draw order: pipeline > material > mesh (draw_list.hpp), so group 1 changes once per
    // material. The object slot is the object index: moving objects stay one dirty range.
    draws_.reserve(scene.objects.size());
    for (uint32_t i = 0; i < scene.objects.size(); ++i)
      draws_.add({.pipeline = 0,
                  .material = scene.objects[i].material,
                  .mesh = scene.objects[i].mesh,
                  .object_slot = i});
    draws_.sort(DrawOrder::material);
    // Each draw's object group and dynamic offset, looked up once: encode_range() then reads
    // one array in draw order (no slot arithmetic or bounds checks per draw).
    object_bindings_.reserve(draws_.size());
    for (const DrawItem& item : draws_.items())
      object_bindings_.push_back({objects_->bind_group(objects_->chunk_of(item.object_slot)),
                                  objects_->dynamic_offset(item.object_slot)});
    with_context(fmt::format("creating the {} strategy", name), [&] { device.check(); });
  }

  /// One draw of encode_range() as webgpu.h handles (raw-floor benchmark, raw_floor.cpp).
  struct RawDraw {
    uint32_t material = 0, mesh = 0;  ///< ids: a change re-binds group 1 / the mesh buffers
    WGPUBindGroup material_group = nullptr;
    WGPUBindGroup object_group = nullptr;  ///< the object's chunk's bind group
    uint32_t dynamic_offset = 0;           ///< the object's offset in that chunk
    WGPUBuffer vertices = nullptr, indices = nullptr;
    WGPUIndexFormat index_format = WGPUIndexFormat_Uint32;
    uint64_t vertex_offset = 0, vertex_bytes = 0;  ///< the mesh's range in `vertices`
    uint64_t index_offset = 0, index_bytes = 0;    ///< the mesh's range in `indices`
    uint32_t index_count = 0;
  };
  /// The GPU objects encode_range() and write_changed_objects() use, for a loop that issues the
  /// same calls straight on webgpu.h (the raw floor of bench.hpp's compare_raw_floor).
  struct RawView {
    WGPURenderPipeline pipeline = nullptr;
    WGPUBindGroup frame_group = nullptr;
    WGPUBuffer frame_buffer = nullptr;
    std::vector<std::byte> frame_bytes;  ///< GlobalUniforms of the values given to raw_view()
    const DynamicUniformBuffer* objects = nullptr;  ///< buffers, slot layout
    std::vector<RawDraw> draws;                     ///< in encode order
  };
  RawView raw_view(const FrameValues& values) {
    RawView v;
    v.pipeline = pipeline_.get();
    v.frame_group = frame_.bind_group();
    v.frame_buffer = frame_.buffer();
    const std::span<const std::byte> bytes = frame_.pack(values);
    v.frame_bytes.assign(bytes.begin(), bytes.end());
    v.objects = objects_.get();
    v.draws.reserve(draws_.size());
    for (const DrawItem& item : draws_.items()) {
      const GpuMesh& mesh = gpu_.meshes[item.mesh];
      v.draws.push_back({item.material, item.mesh, materials_.bind_group(item.material),
                         objects_->bind_group(objects_->chunk_of(item.object_slot)),
                         objects_->dynamic_offset(item.object_slot), mesh.vertices,
                         mesh.indices, mesh.index_format, mesh.vertex_offset, mesh.vertex_bytes,
                         mesh.index_offset, mesh.index_bytes, mesh.index_count});
    }
    return v;
  }

  uint64_t object_stride() const override { return objects_->stride(); }
  uint32_t draw_count() const override { return static_cast<uint32_t>(draws_.size()); }

  /// Writes the changed objects into the CPU shadow and flushes the dirty slots (one writeBuffer
  /// or a few coalesced ranges).
  void write_changed_objects(const FrameInputs& in) {
    // Packed straight into the shadow slots (object i is slot i), marked dirty as one range.
    if (in.changed_end > in.changed_begin) {
      const uint64_t stride = objects_->stride();
      std::byte* slot = objects_->slot_data(in.changed_begin).data();
      const size_t size = objects_->slot_layout().element_size;
      for (uint32_t i = in.changed_begin; i < in.changed_end; ++i, slot += stride)
        writer_.write({slot, size}, in.transforms[i]);
      objects_->mark_dirty_range(in.changed_begin, in.changed_end);
    }
    objects_->flush();
  }

  /// The draws [first, last) through a redundant-state tracker: the frame group is set once, the
  /// material group once per material, the object group every draw with its dynamic offset.
  template <class State>
  void encode_range(State& state, uint32_t first, uint32_t last) {
    const std::span<const DrawItem> items = draws_.items();
    for (uint32_t d = first; d < last; ++d) {
      const DrawItem& item = items[d];
      const GpuMesh& mesh = gpu_.meshes[item.mesh];
      state.set_pipeline(pipeline_.get());
      state.set_bind_group(by_frequency_groups::kFrameGroup, frame_.bind_group(), {},
                           Frequency::frame, 0);
      state.set_bind_group(by_frequency_groups::kMaterialGroup,
                           materials_.bind_group(item.material), {}, Frequency::material,
                           item.material);
      const ObjectBinding& object = object_bindings_[d];
      state.set_bind_group(by_frequency_groups::kObjectGroup, object.group,
                           {&object.dynamic_offset, 1}, Frequency::object, item.object_slot);
      state.set_vertex_buffer(0, mesh.vertices, mesh.vertex_offset, mesh.vertex_bytes);
      state.set_index_buffer(mesh.indices, mesh.index_format, mesh.index_offset,
                             mesh.index_bytes);
      state.draw_indexed(mesh.index_count);
    }
  }

 protected:
  const Device& device_;
  const GpuScene& gpu_;
  Reflection reflection_;
  FrameGroup frame_;
  MaterialGroups materials_;
  ObjectWriter writer_;
  std::unique_ptr<DynamicUniformBuffer> objects_;
  gpu::PipelineLayout pipeline_layout_;
  gpu::ShaderModule module_;
  gpu::RenderPipeline pipeline_;
  DrawList draws_;
  /// Group 2 of each draw, in draw order: the bind group of its object's chunk and its offset.
  struct ObjectBinding {
    WGPUBindGroup group = nullptr;
    uint32_t dynamic_offset = 0;
  };
  std::vector<ObjectBinding> object_bindings_;
};

}  // namespace bindery::strategies
