// --strategy dynamic-offsets: bind groups by frequency (seeds 000, 001, 003).
//   group 0 (frame):    GlobalUniforms, one buffer, one writeBuffer per frame, bound once.
//   group 1 (material): texture + sampler + MaterialUniforms, written once at creation, one bind
//                       group per material; draws are sorted by material so each is bound once.
//   group 2 (object):   PerObjectUniforms for every object in one DynamicUniformBuffer: one
//                       bind group, a dynamic offset per draw, stride = align_to(SizeOf,
//                       device minUniformBufferOffsetAlignment), dirty slots flushed once a frame.
// setBindGroup calls per frame = 1 + materials used + objects. Offsets come from reflection.
#include "strategy.hpp"

#include "bindery/align.hpp"
#include "bindery/draw_list.hpp"
#include "bindery/dynamic_uniform_buffer.hpp"
#include "bindery/layout_builder.hpp"
#include "bindery/struct_view.hpp"
#include "bindery/wgsl_layout.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace bindery::strategies {
namespace {

class DynamicOffsetsStrategy final : public Strategy {
 public:
  DynamicOffsetsStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : device_(device), scene_(scene), gpu_(gpu) {
    reflection_ = reflect_wgsl(shaders::cubes_by_frequency);
    reflection_.throw_if_errors();
    const StructLayout& global = reflection_.struct_layout("GlobalUniforms");
    const StructLayout& material = reflection_.struct_layout("MaterialUniforms");
    const StructLayout& object = reflection_.struct_layout("PerObjectUniforms");
    view_projection_ = global.field("viewProjection");
    light_ = global.field("lightWorldPosition");
    eye_ = global.field("viewWorldPosition");
    world_ = object.field("world");
    normal_ = object.field("normalMatrix");
    object_layout_ = &object;
    global_layout_ = &global;

    // Layouts: the minBindingSize of each buffer entry is the reflected struct size.
    frame_layout_ = create_bind_group_layout(
        device, {"frame", {{0, BindingKind::uniform_buffer, kStageVertex | kStageFragment, false,
                            global.size, "glb"}}});
    material_layout_ = create_bind_group_layout(
        device, {"material",
                 {{0, BindingKind::sampled_texture, kStageFragment, false, 0, "diffuseTexture"},
                  {1, BindingKind::sampler, kStageFragment, false, 0, "diffuseSampler"},
                  {2, BindingKind::uniform_buffer, kStageFragment, false, material.size, "material"}}});
    DynamicUniformBufferDesc od;
    od.label = "per-object uniforms";
    od.element_size = object.size;
    od.slot_count = static_cast<uint32_t>(scene.objects.size());
    od.binding = 0;
    od.visibility = kStageVertex | kStageFragment;
    objects_ = std::make_unique<DynamicUniformBuffer>(device, od);

    WGPUBindGroupLayout layouts[] = {frame_layout_.get(), material_layout_.get(),
                                     objects_->bind_group_layout()};
    pipeline_layout_ = create_pipeline_layout(device, layouts, "by frequency");
    module_ = device.create_shader_module("cubes_by_frequency.wgsl", shaders::cubes_by_frequency);
    pipeline_ = create_scene_pipeline(device, module_.get(), pipeline_layout_.get(), "by frequency");

    // Group 0.
    global_bytes_.resize(global.size);
    frame_buffer_ = device.create_buffer("frame uniforms", global.size,
                                         WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    {
      WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
      e.binding = 0;
      e.buffer = frame_buffer_.get();
      e.size = global.size;
      WGPUBindGroupDescriptor bd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
      bd.label = gpu::sv("frame");
      bd.layout = frame_layout_.get();
      bd.entryCount = 1;
      bd.entries = &e;
      frame_group_ = device.create_bind_group(bd);
    }

    // Group 1: one uniform buffer holding every material at the device's uniform stride, one
    // bind group per material (static offsets), written once.
    // A binding offset must be a multiple of minUniformBufferOffsetAlignment, like a dynamic one.
    const uint64_t mstride = dynamic_uniform_stride(material.size, device.limits());
    material_buffer_ = device.create_buffer(
        "material uniforms", mstride * scene.materials.size(),
        WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    std::vector<std::byte> mbytes(mstride * scene.materials.size());
    const FieldRef color = material.field("color"), shininess = material.field("shininess");
    for (size_t m = 0; m < scene.materials.size(); ++m) {
      StructView v(material, std::span<std::byte>(mbytes).subspan(m * mstride, material.size));
      v.set(color, scene.materials[m].color);
      v.set(shininess, scene.materials[m].shininess);
      WGPUBindGroupEntry e[3] = {WGPU_BIND_GROUP_ENTRY_INIT, WGPU_BIND_GROUP_ENTRY_INIT,
                                 WGPU_BIND_GROUP_ENTRY_INIT};
      e[0].binding = 0;
      e[0].textureView = gpu.views[scene.materials[m].texture].get();
      e[1].binding = 1;
      e[1].sampler = gpu.sampler.get();
      e[2].binding = 2;
      e[2].buffer = material_buffer_.get();
      e[2].offset = m * mstride;
      e[2].size = material.size;
      WGPUBindGroupDescriptor bd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
      bd.label = gpu::sv("material");
      bd.layout = material_layout_.get();
      bd.entryCount = 3;
      bd.entries = e;
      material_groups_.push_back(device.create_bind_group(bd));
    }
    device.write_buffer(material_buffer_.get(), 0, mbytes.data(), mbytes.size());

    // Draw order: pipeline > material > mesh (draw_list.hpp), so group 1 changes once per
    // material. The object slot is the object index: moving objects stay one dirty range.
    draws_.reserve(scene.objects.size());
    for (uint32_t i = 0; i < scene.objects.size(); ++i)
      draws_.add({.pipeline = 0, .material = scene.objects[i].material,
                  .mesh = scene.objects[i].mesh, .object_slot = i});
    draws_.sort(DrawOrder::material);
    with_context("creating the dynamic-offsets strategy", [&] { device.check(); });
  }

  uint64_t object_stride() const override { return objects_->stride(); }

  void record(const FrameInputs& in, WGPURenderPassEncoder pass) override {
    Counters& c = device_.counters();
    // Frame values: one writeBuffer.
    StructView g(*global_layout_, std::span<std::byte>(global_bytes_));
    g.set(view_projection_, in.values.view_projection);
    g.set(light_, in.values.light_world_position);
    g.set(eye_, in.values.view_world_position);
    device_.write_buffer(frame_buffer_.get(), 0, global_bytes_.data(), global_bytes_.size());

    // Per-object values: only the objects that changed are written and marked dirty; flush()
    // uploads them in one writeBuffer or a few coalesced ranges.
    for (uint32_t i = in.changed_begin; i < in.changed_end; ++i) {
      StructView v(*object_layout_, objects_->slot_data(i));
      v.set(world_, in.transforms[i].world);
      v.set(normal_, in.transforms[i].normal);
      objects_->mark_dirty(i);
    }
    objects_->flush();

    // Encode over the draw list (sorted by material at creation) through the redundant-state
    // tracker: the frame group is set once, the material group once per material, the object
    // group every draw with its dynamic offset; nothing redundant reaches the pass encoder.
    RenderPassState state(pass, device_.counters());
    for (const DrawItem& item : draws_.items()) {
      const GpuMesh& mesh = gpu_.meshes[item.mesh];
      state.set_pipeline(pipeline_.get());
      state.set_bind_group(0, frame_group_.get(), {}, Frequency::frame, 0);
      state.set_bind_group(1, material_groups_[item.material].get(), {}, Frequency::material,
                           item.material);
      const uint32_t offset = objects_->dynamic_offset(item.object_slot);
      state.set_bind_group(2, objects_->bind_group(objects_->chunk_of(item.object_slot)),
                           {&offset, 1}, Frequency::object, item.object_slot);
      state.set_vertex_buffer(0, mesh.vertices.get(), 0, mesh.vertex_bytes);
      state.set_index_buffer(mesh.indices.get(), mesh.index_format, 0, mesh.index_bytes);
      state.draw_indexed(mesh.index_count);
    }
  }

 private:
  const Device& device_;
  const Scene& scene_;
  const GpuScene& gpu_;
  Reflection reflection_;
  const StructLayout* object_layout_ = nullptr;
  const StructLayout* global_layout_ = nullptr;
  FieldRef view_projection_, light_, eye_, world_, normal_;
  gpu::BindGroupLayout frame_layout_, material_layout_;
  std::unique_ptr<DynamicUniformBuffer> objects_;
  gpu::PipelineLayout pipeline_layout_;
  gpu::ShaderModule module_;
  gpu::RenderPipeline pipeline_;
  std::vector<std::byte> global_bytes_;
  gpu::Buffer frame_buffer_;
  gpu::BindGroup frame_group_;
  gpu::Buffer material_buffer_;
  std::vector<gpu::BindGroup> material_groups_;
  DrawList draws_;
};

}  // namespace

std::unique_ptr<Strategy> make_dynamic_offsets_strategy(const Device& device, const Scene& scene,
                                                        const GpuScene& gpu) {
  return std::make_unique<DynamicOffsetsStrategy>(device, scene, gpu);
}

}  // namespace bindery::strategies
