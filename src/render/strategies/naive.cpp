// SPDX-License-Identifier: MIT
// --strategy naive: the article's starting point (seed 003). Each object owns a uniform buffer
// holding every value its draw reads (struct Uniforms in shaders/cubes_naive.wgsl) and a bind
// group (texture, sampler, that buffer); every frame writes each object's buffer with its own
// writeBuffer and binds its bind group. Offsets come from reflecting the shader.
#include "strategy.hpp"

#include "bindery/encode/draw_list.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

namespace bindery::strategies {
namespace {

// The one bind group of the naive layout (the object's own uniform buffers; @group(0)).
constexpr uint32_t kObjectGroup = 0;

class NaiveStrategy final : public Strategy {
 public:
  NaiveStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : device_(device), scene_(scene), gpu_(gpu) {
    reflection_ = reflect_checked(shaders::cubes_naive);
    const StructLayout& u = reflection_.struct_layout("Uniforms");
    uniform_size_ = u.size;
    normal_ = u.field("normalMatrix");
    view_projection_ = u.field("viewProjection");
    world_ = u.field("world");
    color_ = u.field("color");
    light_ = u.field("lightWorldPosition");
    eye_ = u.field("viewWorldPosition");
    shininess_ = u.field("shininess");
    alpha_cutoff_ = u.field("alphaCutoff");

    BindGroupLayoutDesc desc{
        "naive per-object",
        {{0, BindingKind::sampled_texture, kStageFragment, false, 0, "diffuseTexture"},
         {1, BindingKind::sampler, kStageFragment, false, 0, "diffuseSampler"},
         {2, BindingKind::uniform_buffer, kStageVertex | kStageFragment, false, uniform_size_,
          "uni"}}};
    layout_ = create_bind_group_layout(device, desc);
    WGPUBindGroupLayout layouts[] = {layout_.get()};
    pipeline_layout_ = create_pipeline_layout(device, layouts, "naive");
    module_ = device.create_shader_module("cubes_naive.wgsl", shaders::cubes_naive);
    pipeline_ = create_scene_pipeline(device, module_.get(), pipeline_layout_.get(), "naive");

    check_bind_group_budget(device, scene.objects.size(), "naive strategy (one per object)");
    staging_.resize(uniform_size_);
    objects_.reserve(scene.objects.size());
    for (size_t i = 0; i < scene.objects.size(); ++i) {
      PerObject o;
      o.buffer = device.create_buffer("naive uniforms", uniform_size_,
                                      WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
      const Material& m = scene.materials[scene.objects[i].material];
      const WGPUBindGroupEntry entries[] = {
          texture_group_entry(0, gpu.views[m.texture].get()),
          sampler_group_entry(1, gpu.samplers[m.sampler].get()),
          buffer_group_entry(2, o.buffer.get(), 0, uniform_size_)};
      o.bind_group = create_bind_group(device, "", layout_.get(), entries);
      objects_.push_back(std::move(o));
    }
    with_context("creating the naive strategy's per-object bind groups", [&] { device.check(); });
  }

  void upload(const FrameInputs& in, WGPUCommandEncoder) override {
    // The article's loop writes every value of every object, every frame, one writeBuffer each.
    StructView view(reflection_.struct_layout("Uniforms"), std::span<std::byte>(staging_));
    for (size_t i = 0; i < objects_.size(); ++i) {
      const Material& m = scene_.materials[scene_.objects[i].material];
      view.set(view_projection_, in.values.view_projection);
      view.set(world_, in.transforms[i].world);
      view.set(normal_, in.transforms[i].normal);
      view.set(color_, m.color);
      view.set(light_, in.values.light_world_position);
      view.set(eye_, in.values.view_world_position);
      view.set(shininess_, m.shininess);
      view.set(alpha_cutoff_, shader_alpha_cutoff(m));
      device_.write_buffer(objects_[i].buffer.get(), 0, staging_.data(), staging_.size());
    }
  }

  uint32_t draw_count() const override { return static_cast<uint32_t>(objects_.size()); }

  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last,
              Counters& counters) override {
    RenderPassState state(pass, counters, IntruderPolicy::ignore, &device_.limits());
    for (uint32_t i = first; i < last; ++i) {
      const GpuMesh& mesh = gpu_.meshes[scene_.objects[i].mesh];
      state.set_pipeline(pipeline_.get());
      state.set_vertex_buffer(0, mesh.vertices, mesh.vertex_offset, mesh.vertex_bytes);
      state.set_index_buffer(mesh.indices, mesh.index_format, mesh.index_offset,
                             mesh.index_bytes);
      // One group holds everything, so it changes with the object (declared per object).
      state.set_bind_group(kObjectGroup, objects_[i].bind_group.get(), {}, Frequency::object,
                           i);
      state.draw_indexed(mesh.index_count);
    }
  }

 private:
  struct PerObject {
    gpu::Buffer buffer;
    gpu::BindGroup bind_group;
  };
  const Device& device_;
  const Scene& scene_;
  const GpuScene& gpu_;
  Reflection reflection_;
  uint32_t uniform_size_ = 0;
  FieldRef normal_, view_projection_, world_, color_, light_, eye_, shininess_, alpha_cutoff_;
  gpu::BindGroupLayout layout_;
  gpu::PipelineLayout pipeline_layout_;
  gpu::ShaderModule module_;
  gpu::RenderPipeline pipeline_;
  std::vector<std::byte> staging_;
  std::vector<PerObject> objects_;
};

}  // namespace

extern const StrategyRow naive_row{
    {"naive", "a uniform buffer + bind group per object, writeBuffer and setBindGroup each",
     "003: the unoptimized start"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<NaiveStrategy>(device, scene, gpu);
    },
    nullptr,
    /*parallel_encode=*/true};

}  // namespace bindery::strategies
