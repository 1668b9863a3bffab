// SPDX-License-Identifier: MIT
// --strategy bundles-gpu: every object its own drawIndexed, recorded once into render bundles
// (WebGPU §17.2; one bundle per render pass range) and replayed with executeBundles; the
// per-object data is written each frame by a compute pass that runs the article's animation on
// the GPU (object_animation.wgsl, the same code as gpu-driven), so the CPU per frame writes one
// BundlesFrame uniform, records one dispatch and one executeBundles per pass, and nothing per
// object (issue 10 part 3; seed 003's "further ideas": render bundles, compute). Unlike
// gpu-driven nothing is culled: every object is drawn, one draw each.
// Shader: shaders/cubes_bundles_gpu.wgsl.
//   compute "animate": objects[i] = PerObjectUniforms (normal matrix, world) of object i at the
//                      frame's time, one invocation per object.
//   render  "render":  the bundles; each draw's firstInstance is its object's index, which the
//                      vertex stage reads `objects` with (@builtin(instance_index)).
// Bind groups: render group 0 = frame uniform + objects (read-only storage), bound once per
// bundle; group 1 = material (MaterialGroups, draws sorted by material); compute group 0 = frame
// uniform + object inputs + objects (read-write storage). All objects' PerObjectUniforms sit in
// one storage binding (maxStorageBufferBindingSize, checked for availability).
#include "object_animation.hpp"
#include "shared_groups.hpp"
#include "strategy.hpp"

#include "bindery/encode/draw_list.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <map>

namespace bindery::strategies {
namespace {

// Why the strategy cannot run on this device and scene, or nullopt.
std::optional<std::string> unavailable(const Device& device, const Scene& scene) {
  if (std::optional<std::string> why = gpu_animation_unavailable(device, scene)) return why;
  const Limits& limits = device.limits();
  // Every object's PerObjectUniforms (PerObjectGpu, checked against the shader at creation) in
  // one storage binding that the compute pass writes and the vertex stage reads.
  const uint64_t bytes = std::max<uint64_t>(scene.objects.size(), 1) * sizeof(PerObjectGpu);
  if (bytes > limits.maxStorageBufferBindingSize || bytes > limits.maxBufferSize)
    return fmt::format(
        "{} objects need {} bytes of per-object matrices in one storage binding; "
        "maxStorageBufferBindingSize is {}, maxBufferSize {}",
        scene.objects.size(), bytes, limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  return std::nullopt;
}

class BundlesGpuStrategy final : public Strategy {
 public:
  BundlesGpuStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : device_(device),
        gpu_(gpu),
        reflection_(reflect_checked(shaders::cubes_bundles_gpu)),
        frame_layout_(reflection_.struct_layout("BundlesFrame")),
        materials_(device, scene, gpu, reflection_.struct_layout("MaterialUniforms")),
        object_count_(static_cast<uint32_t>(scene.objects.size())) {
    const StructLayout& per_object = reflection_.struct_layout("PerObjectUniforms");
    check_struct_matches<PerObjectGpu>(per_object);
    const StructLayout& input = reflection_.struct_layout("ObjectInput");
    inputs_ = upload_object_inputs(device, scene, input, "bundles-gpu");
    frame_bytes_.resize(frame_layout_.size);
    frame_ = device.create_buffer("bundles-gpu frame", frame_layout_.size,
                                  WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    const uint64_t object_bytes = std::max<uint64_t>(object_count_, 1) * sizeof(PerObjectGpu);
    objects_ =
        device.create_buffer("animated per-object matrices", object_bytes, WGPUBufferUsage_Storage);
    create_groups(per_object.size, input.size, object_bytes);
    create_pipelines();

    // Draw order: material > mesh (draw_list.hpp), so group 1 changes once per material; the
    // object slot is the object's index in `objects` (its draw's firstInstance).
    draws_.reserve(scene.objects.size());
    for (uint32_t i = 0; i < object_count_; ++i)
      draws_.add({.pipeline = 0,
                  .material = scene.objects[i].material,
                  .mesh = scene.objects[i].mesh,
                  .object_slot = i});
    draws_.sort(DrawOrder::material);
    with_context("creating the bundles-gpu strategy", [&] { device.check(); });
  }

  bool needs_cpu_transforms() const override { return false; }
  uint64_t object_stride() const override { return sizeof(PerObjectGpu); }
  uint32_t draw_count() const override { return static_cast<uint32_t>(draws_.size()); }

  /// The frame's one writeBuffer: BundlesFrame (camera, light, time, object count).
  void upload(const FrameInputs& in, WGPUCommandEncoder) override {
    StructView v(frame_layout_, std::span<std::byte>(frame_bytes_));
    v.set(frame_layout_.field("viewProjection"), in.values.view_projection);
    v.set(frame_layout_.field("lightWorldPosition"), in.values.light_world_position);
    v.set(frame_layout_.field("time"), in.time_s);
    v.set(frame_layout_.field("viewWorldPosition"), in.values.view_world_position);
    v.set(frame_layout_.field("objectCount"), object_count_);
    device_.write_buffer(frame_.get(), 0, frame_bytes_.data(), frame_bytes_.size());
  }

  /// upload(), the compute pass "animate" writing every object's matrices, then the bundles.
  void record_frame(FrameContext& ctx) override {
    upload(ctx.in, ctx.encoder);
    if (const AnimateGrid grid = animate_grid(object_count_); grid.x > 0) {
      TimedComputePass pass(ctx, "animate");
      pass.dispatch(animate_.get(), animate_group_.get(), grid.x, grid.y);
    }
    record_draw_passes(ctx);
  }

  /// Records the bundle of a pass range the first time the range is drawn, replays it after.
  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last,
              Counters& counters) override {
    auto it = bundles_.find(first);
    const bool recorded_now = it == bundles_.end();
    if (recorded_now) it = bundles_.emplace(first, record_bundle(first, last, counters)).first;
    RenderPassState state(pass, counters, IntruderPolicy::build_default, &device_.limits());
    const WGPURenderBundle bundle = it->second.get();
    state.execute_bundles({&bundle, 1});
    if (!recorded_now) counters.draws += last - first;  // replayed, not re-encoded
  }

  std::vector<std::pair<std::string, std::string>> notes() const override {
    return {{"drawPath", "executeBundles (one drawIndexed per object, recorded once)"},
            {"perObjectData", "compute pass (the article's animation on the GPU)"}};
  }

 private:
  gpu::RenderBundle record_bundle(uint32_t first, uint32_t last, Counters& counters) {
    gpu::RenderBundleEncoder encoder = create_scene_bundle_encoder(device_, "bundles-gpu draws");
    {
      RenderBundleState state(encoder.get(), counters, IntruderPolicy::build_default,
                              &device_.limits());
      for (const DrawItem& item : draws_.items().subspan(first, last - first)) {
        const GpuMesh& mesh = gpu_.meshes[item.mesh];
        state.set_pipeline(pipeline_.get());
        state.set_bind_group(0, render_group_.get(), {}, Frequency::frame, 0);
        state.set_bind_group(1, materials_.bind_group(item.material), {}, Frequency::material,
                             item.material);
        state.set_vertex_buffer(0, mesh.vertices.get(), 0, mesh.vertex_bytes);
        state.set_index_buffer(mesh.indices.get(), mesh.index_format, 0, mesh.index_bytes);
        state.draw_indexed(mesh.index_count, 1, 0, 0, item.object_slot);
      }
    }
    gpu::RenderBundle bundle =
        gpu::RenderBundle::acquire(wgpuRenderBundleEncoderFinish(encoder.get(), nullptr));
    with_context("recording a bundles-gpu render bundle", [&] { device_.check(); });
    return bundle;
  }

  // The render group 0 (frame + objects read-only) and the compute group 0 (frame + inputs +
  // objects read-write), minBindingSize from the reflected structs.
  void create_groups(uint64_t per_object_size, uint64_t input_size, uint64_t object_bytes) {
    const uint64_t frame_size = frame_layout_.size;
    render_group_layout_ = create_bind_group_layout(
        device_, {"bundles-gpu frame",
                  {{0, BindingKind::uniform_buffer, kStageVertex | kStageFragment, false,
                    frame_size, "frame"},
                   {1, BindingKind::read_only_storage_buffer, kStageVertex, false, per_object_size,
                    "objects"}}});
    animate_layout_ = create_bind_group_layout(
        device_,
        {"bundles-gpu animate",
         {{0, BindingKind::uniform_buffer, kStageCompute, false, frame_size, "frame"},
          {2, BindingKind::read_only_storage_buffer, kStageCompute, false, input_size, "inputs"},
          {3, BindingKind::storage_buffer, kStageCompute, false, per_object_size, "animated"}}});
    const uint64_t input_bytes = std::max<uint64_t>(object_count_, 1) * sizeof(ObjectInputGpu);
    auto entry = [](uint32_t binding, WGPUBuffer buffer, uint64_t size) {
      WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
      e.binding = binding;
      e.buffer = buffer;
      e.size = size;
      return e;
    };
    const WGPUBindGroupEntry render_entries[] = {entry(0, frame_.get(), frame_size),
                                                 entry(1, objects_.get(), object_bytes)};
    render_group_ = create_bind_group(
        device_, "bundles-gpu frame", render_group_layout_.get(), render_entries);
    const WGPUBindGroupEntry animate_entries[] = {entry(0, frame_.get(), frame_size),
                                                  entry(2, inputs_.get(), input_bytes),
                                                  entry(3, objects_.get(), object_bytes)};
    animate_group_ = create_bind_group(
        device_, "bundles-gpu animate", animate_layout_.get(), animate_entries);
  }

  void create_pipelines() {
    module_ = device_.create_shader_module("cubes_bundles_gpu.wgsl", shaders::cubes_bundles_gpu);
    WGPUBindGroupLayout render_layouts[] = {render_group_layout_.get(), materials_.layout()};
    render_pipeline_layout_ = create_pipeline_layout(device_, render_layouts, "bundles-gpu");
    pipeline_ =
        create_scene_pipeline(device_, module_.get(), render_pipeline_layout_.get(), "bundles-gpu");
    WGPUBindGroupLayout animate_layouts[] = {animate_layout_.get()};
    animate_pipeline_layout_ =
        create_pipeline_layout(device_, animate_layouts, "bundles-gpu animate");
    WGPUComputePipelineDescriptor cd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
    cd.label = gpu::sv("bundles-gpu animate");
    cd.layout = animate_pipeline_layout_.get();
    cd.compute.module = module_.get();
    cd.compute.entryPoint = gpu::sv("animate");
    animate_ = gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(device_.get(), &cd));
  }

  const Device& device_;
  const GpuScene& gpu_;
  Reflection reflection_;
  const StructLayout& frame_layout_;
  MaterialGroups materials_;
  uint32_t object_count_ = 0;
  std::vector<std::byte> frame_bytes_;
  gpu::Buffer inputs_, frame_, objects_;
  gpu::BindGroupLayout render_group_layout_, animate_layout_;
  gpu::BindGroup render_group_, animate_group_;
  gpu::PipelineLayout render_pipeline_layout_, animate_pipeline_layout_;
  gpu::ShaderModule module_;
  gpu::RenderPipeline pipeline_;
  gpu::ComputePipeline animate_;
  DrawList draws_;
  std::map<uint32_t, gpu::RenderBundle> bundles_;  ///< first draw of a pass range -> bundle
};

}  // namespace

extern const StrategyRow bundles_gpu_row{
    {"bundles-gpu",
     "one draw per object recorded once into render bundles; a compute pass writes every "
     "object's matrices (the article's animation on the GPU); nothing per object on the CPU",
     "003: further ideas (render bundles, GPU-computed per-object data)"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<BundlesGpuStrategy>(device, scene, gpu);
    },
    unavailable};

}  // namespace bindery::strategies
