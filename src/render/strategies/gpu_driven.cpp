// SPDX-License-Identifier: MIT
// --strategy gpu-driven: any scene drawn through bindery's GPU-driven parts
// (include/bindery/gpu_driven/): every mesh once in the mesh pool, every object a record of the
// object table, materials and textures in the material table (2D arrays by size class), frustum
// and two-phase occlusion culling on the GPU into (pipeline, mesh) bins, and the bins' indirect
// draws emitted through the best draw path of the device (multi-draw-indirect-count,
// multi-draw-indirect, a render bundle, or a loop of drawIndexedIndirect; --draw-path forces one).
// The further ideas of the webgpufundamentals optimization article (GPU culling, indirect draws);
// the GPU-driven pipelines of Haar & Aaltonen (SIGGRAPH 2015) and Wihlidal (GDC 2016).
//
// Who moves the objects:
//   - the article's cubes: the GPU. Their animation inputs are uploaded once; each frame a compute
//     pass (shaders/object_animate.wgsl) writes every record's world matrix, and nothing per
//     object crosses from the CPU;
//   - any other scene (glTF, city): the application, through ObjectTable::set_transform for the
//     objects whose transform changed this frame (FrameInputs' changed range), flushed once.
// A frame:
//   compute "cull":    [animate]; Culling::phase1 (counts reset, bins reset, frustum test,
//                      IndirectDraws::build)
//   render  "phase1":  IndirectDraws::draw
// and with occlusion culling:
//   compute "pyramid": DepthPyramid::build
//   compute "cull2":   Culling::phase2
//   render  "phase2":  IndirectDraws::draw (loads colour and depth)
#include "object_animation.hpp"
#include "strategy.hpp"

#include "bindery/gpu_driven/culling.hpp"
#include "bindery/gpu_driven/depth_pyramid.hpp"
#include "bindery/gpu_driven/indirect_draws.hpp"
#include "bindery/gpu_driven/material_table.hpp"
#include "bindery/gpu_driven/mesh_pool.hpp"
#include "bindery/gpu_driven/object_table.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <bit>
#include <memory>

namespace bindery::strategies {
namespace {

using namespace bindery::gpu_driven;

// Bind group indices of the render pipeline (shaders/gpu_driven_draw.wgsl).
constexpr uint32_t kObjectGroup = 0;    // frame uniform, object table, instance remap
constexpr uint32_t kMaterialGroup = 1;  // MaterialTable::wgsl(kMaterialGroup, 0)

// Why the strategy cannot run on this device and scene, or nullopt.
std::optional<std::string> unavailable(const Device& device, const Scene& scene) {
  if (device.adapter().backend == "gl")
    return "its compute shaders do not translate to wgpu-native's OpenGL backend (the GLSL "
           "generated for the occlusion test calls textureSize with an unsigned level); use "
           "--backend vulkan";
  if (std::optional<std::string> why = draw_path_unavailable(device, DrawPath::loop)) return why;
  const Limits& limits = device.limits();
  const uint64_t records = std::max<uint64_t>(scene.objects.size(), 1) * kObjectRecordBytes;
  if (records > limits.maxStorageBufferBindingSize || records > limits.maxBufferSize)
    return fmt::format(
        "{} objects need {} bytes of object records in one binding; "
        "maxStorageBufferBindingSize is {}, maxBufferSize {}",
        scene.objects.size(), records, limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  return std::nullopt;
}

// shaders/gpu_driven_draw.wgsl with its stand-in material table replaced by `materials`' own.
std::string draw_shader(const MaterialTable& materials) {
  std::string source(shaders::gpu_driven_draw);
  const size_t begin = source.find("// BEGIN material table");
  const std::string end_marker = "// END material table";
  const size_t end = source.find(end_marker);
  if (begin == std::string::npos || end == std::string::npos)
    throw Error(ErrorKind::Internal, "gpu_driven_draw.wgsl: the material table markers are gone");
  source.replace(begin, end + end_marker.size() - begin, materials.wgsl(kMaterialGroup, 0));
  return source;
}

bool all_animated(const Scene& scene) {
  if (scene.objects.empty()) return false;
  for (const Object& o : scene.objects)
    if (!o.animated) return false;
  return true;
}

MeshPoolDesc pool_desc(const Scene& scene) {
  MeshPoolDesc d;
  d.label = "gpu-driven meshes";
  uint64_t vertices = 0, indices = 0;
  for (const Mesh& m : scene.meshes) {
    vertices += m.vertices.size();
    indices += m.indices.size();
  }
  d.initial_vertices = std::max<uint64_t>(vertices, 1);
  d.initial_indices = std::max<uint64_t>(indices, 1);
  return d;
}

class GpuDrivenStrategy final : public Strategy {
 public:
  GpuDrivenStrategy(const Device& device, const Scene& scene, const StrategyOptions& options)
      : device_(device),
        object_count_(static_cast<uint32_t>(scene.objects.size())),
        gpu_animation_(all_animated(scene)),
        occlusion_(options.occlusion),
        moving_(scene.moving),
        meshes_(device, pool_desc(scene)),
        materials_(device, scene.materials, scene.textures, scene.samplers),
        objects_(device, ObjectTableDesc{"gpu-driven objects", std::max(object_count_, 1u)}) {
    add_meshes(scene);
    add_objects(scene);
    if (occlusion_)
      pyramid_ = std::make_unique<DepthPyramid>(device, options.depth_texture, options.width,
                                                options.height);
    IndirectDrawsDesc dd;
    dd.label = "gpu-driven draws";
    if (!options.draw_path.empty()) dd.path = parse_draw_path(options.draw_path);
    draws_ = std::make_unique<IndirectDraws>(device, objects_, meshes_, dd);
    culling_ = std::make_unique<Culling>(device, objects_, meshes_, *draws_, pyramid_.get(),
                                         CullingDesc{true, occlusion_});
    if (gpu_animation_) create_animation(scene);
    create_render_pipeline();
    with_context("creating the gpu-driven strategy", [&] { device.check(); });
  }

  bool needs_cpu_transforms() const override { return !gpu_animation_; }
  uint64_t object_stride() const override { return kObjectRecordBytes; }
  uint32_t draw_count() const override { return 1; }
  uint64_t stats_bytes() const override { return Culling::kStatsBytes; }

  void upload(const FrameInputs& in, WGPUCommandEncoder encoder) override {
    if (gpu_animation_) {
      const uint32_t values[2] = {std::bit_cast<uint32_t>(in.time_s), object_count_};
      device_.write_buffer(animate_frame_.get(), 0, values, sizeof(values));
    } else if (in.first_frame) {
      for (uint32_t i = 0; i < object_count_; ++i)
        objects_.set_transform(i, in.transforms[i].world);
    } else {
      // Only the objects that move (Scene::moving) and were recomputed this frame: a static
      // glTF model uploads nothing after its first frame.
      const uint32_t end = std::min<uint32_t>(in.changed_end, object_count_);
      for (const uint32_t i : moving_)
        if (i >= in.changed_begin && i < end) objects_.set_transform(i, in.transforms[i].world);
    }
    const FlushStats flushed = objects_.flush(encoder);
    records_uploaded_ += flushed.records_uploaded;
    write_frame(in.values);
    const bool rebuilt = culling_->prepare(in.values.view_projection);
    if (rebuilt || objects_.generation() != render_generation_) create_object_group();
  }

  void after_submit() override { objects_.after_submit(); }

  void encode(WGPURenderPassEncoder pass, uint32_t, uint32_t, Counters& counters) override {
    const WGPUBindGroup groups[] = {object_group_.get(), material_group_.get()};
    draws_->draw(pass, 0, DrawState{render_pipeline_.get(), groups}, counters);
  }

  void record_frame(FrameContext& ctx) override {
    upload(ctx.in, ctx.encoder);
    {
      TimedComputePass pass(ctx, "cull");
      if (gpu_animation_) {
        const AnimateGrid grid = animate_grid(object_count_);
        if (grid.x > 0) pass.dispatch(animate_.get(), animate_group_.get(), grid.x, grid.y);
      }
      culling_->phase1(pass.get());
    }
    render_pass(ctx, "phase1", true);
    if (!occlusion_) return;
    {
      TimedComputePass pass(ctx, "pyramid");
      pyramid_->build(pass.get());
    }
    {
      TimedComputePass pass(ctx, "cull2");
      culling_->phase2(pass.get());
    }
    render_pass(ctx, "phase2", false);
  }

  void copy_stats(WGPUCommandEncoder encoder, WGPUBuffer dst, uint64_t offset) override {
    culling_->copy_stats(encoder, dst, offset);
  }

  std::optional<CullingCounts> read_stats(const std::byte* bytes) const override {
    const CullingStats s = Culling::read_stats(bytes, object_count_);
    return CullingCounts{s.objects, s.after_frustum, s.after_occlusion, s.drawn, s.sub_draws};
  }

  std::vector<std::pair<std::string, std::string>> notes() const override {
    return {{"drawPath", std::string(to_string(draws_->path()))},
            {"occlusion", occlusion_ ? "two-phase depth pyramid" : "off"},
            {"textureArrays", std::to_string(materials_.classes().size())},
            {"movedBy", gpu_animation_ ? "GPU (the article's animation)" : "application"}};
  }

 private:
  void render_pass(FrameContext& ctx, std::string_view name, bool clear) {
    const uint32_t span = ctx.timer.open(name);
    gpu::RenderPassEncoder pass =
        ctx.target.begin_pass(ctx.encoder, clear, ctx.timer.writes(span, true, true));
    encode(pass.get(), 0, 1, ctx.counters);
    wgpuRenderPassEncoderEnd(pass.get());
    ctx.passes++;
  }

  // Every mesh once, into the pool: a fresh pool hands out ids 0, 1, ... in order, so a scene's
  // mesh index is its id.
  void add_meshes(const Scene& scene) {
    for (uint32_t m = 0; m < scene.meshes.size(); ++m)
      if (meshes_.add(scene.meshes[m]) != m)
        throw Error(ErrorKind::Internal, "gpu-driven: a fresh mesh pool handed out ids out of order");
  }

  // Every object once, into the table (ids 0, 1, ... like the meshes); transforms follow with the
  // first frame's changed range, or from the GPU animation.
  void add_objects(const Scene& scene) {
    for (uint32_t i = 0; i < scene.objects.size(); ++i) {
      const Object& o = scene.objects[i];
      if (objects_.add(o.animated ? glm::mat4(1.0f) : o.placement, o.mesh, o.material) != i)
        throw Error(ErrorKind::Internal, "gpu-driven: a fresh object table handed out ids out of order");
    }
  }

  void create_animation(const Scene& scene) {
    using namespace gpu_driven;
    const Reflection reflection = reflect_checked(shaders::object_animate);
    inputs_ = upload_object_inputs(device_, scene, reflection.struct_layout("ObjectInput"),
                                   "gpu-driven");
    animate_frame_ = device_.create_buffer("gpu-driven animate frame", 8,
                                           WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    WGPUBindGroupLayoutEntry entries[3];
    const WGPUBufferBindingType types[3] = {WGPUBufferBindingType_Uniform,
                                            WGPUBufferBindingType_ReadOnlyStorage,
                                            WGPUBufferBindingType_Storage};
    for (uint32_t b = 0; b < 3; ++b) {
      entries[b] = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
      entries[b].binding = b;
      entries[b].visibility = WGPUShaderStage_Compute;
      entries[b].buffer.type = types[b];
    }
    WGPUBindGroupLayoutDescriptor ld = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
    ld.label = gpu::sv("gpu-driven animate");
    ld.entryCount = 3;
    ld.entries = entries;
    animate_layout_ =
        gpu::BindGroupLayout::acquire(wgpuDeviceCreateBindGroupLayout(device_.get(), &ld));
    WGPUBindGroupLayout layouts[] = {animate_layout_.get()};
    animate_pipeline_layout_ = create_pipeline_layout(device_, layouts, "gpu-driven animate");
    animate_module_ = device_.create_shader_module("object_animate.wgsl", shaders::object_animate);
    WGPUComputePipelineDescriptor cd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
    cd.label = gpu::sv("animate_objects");
    cd.layout = animate_pipeline_layout_.get();
    cd.compute.module = animate_module_.get();
    cd.compute.entryPoint = gpu::sv("animate_objects");
    animate_ = gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(device_.get(), &cd));
    create_animate_group();
  }

  void create_animate_group() {
    WGPUBindGroupEntry e[3];
    const WGPUBuffer buffers[3] = {animate_frame_.get(), inputs_.get(), objects_.buffer()};
    for (uint32_t b = 0; b < 3; ++b) {
      e[b] = WGPU_BIND_GROUP_ENTRY_INIT;
      e[b].binding = b;
      e[b].buffer = buffers[b];
      e[b].size = WGPU_WHOLE_SIZE;
    }
    animate_group_ = create_bind_group(device_, "gpu-driven animate", animate_layout_.get(), e);
  }

  void create_render_pipeline() {
    const Reflection reflection = reflect_checked(shaders::gpu_driven_draw);
    frame_layout_ = reflection.struct_layout("DrawFrame");
    frame_bytes_.resize(frame_layout_.size);
    frame_ = device_.create_buffer("gpu-driven frame", frame_layout_.size,
                                   WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    WGPUBindGroupLayoutEntry object_entries[3];
    const WGPUBufferBindingType types[3] = {WGPUBufferBindingType_Uniform,
                                            WGPUBufferBindingType_ReadOnlyStorage,
                                            WGPUBufferBindingType_ReadOnlyStorage};
    for (uint32_t b = 0; b < 3; ++b) {
      object_entries[b] = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
      object_entries[b].binding = b;
      object_entries[b].visibility = b == 0 ? WGPUShaderStage_Vertex | WGPUShaderStage_Fragment
                                            : WGPUShaderStage_Vertex;
      object_entries[b].buffer.type = types[b];
    }
    object_layout_ = raw_layout("gpu-driven objects", object_entries);
    const std::vector<WGPUBindGroupLayoutEntry> material_entries = materials_.layout_entries(0);
    material_layout_ = raw_layout("gpu-driven materials", material_entries);
    const std::vector<WGPUBindGroupEntry> material_bindings = materials_.group_entries(0);
    material_group_ = create_bind_group(device_, "gpu-driven materials", material_layout_.get(),
                                        material_bindings);
    create_object_group();
    WGPUBindGroupLayout layouts[2];
    layouts[kObjectGroup] = object_layout_.get();
    layouts[kMaterialGroup] = material_layout_.get();
    render_pipeline_layout_ = create_pipeline_layout(device_, layouts, "gpu-driven render");
    const std::string source = draw_shader(materials_);
    render_module_ = device_.create_shader_module("gpu_driven_draw.wgsl", source);
    render_pipeline_ = create_scene_pipeline(device_, render_module_.get(),
                                             render_pipeline_layout_.get(), "gpu-driven");
  }

  void create_object_group() {
    WGPUBindGroupEntry e[3];
    const WGPUBuffer buffers[3] = {frame_.get(), objects_.buffer(), draws_->remap_buffer()};
    for (uint32_t b = 0; b < 3; ++b) {
      e[b] = WGPU_BIND_GROUP_ENTRY_INIT;
      e[b].binding = b;
      e[b].buffer = buffers[b];
      e[b].size = WGPU_WHOLE_SIZE;
    }
    object_group_ = create_bind_group(device_, "gpu-driven objects", object_layout_.get(), e);
    if (gpu_animation_ && animate_layout_) create_animate_group();
    render_generation_ = objects_.generation();
  }

  gpu::BindGroupLayout raw_layout(const char* label, std::span<const WGPUBindGroupLayoutEntry> e) {
    WGPUBindGroupLayoutDescriptor d = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
    d.label = gpu::sv(label);
    d.entryCount = e.size();
    d.entries = e.data();
    return gpu::BindGroupLayout::acquire(wgpuDeviceCreateBindGroupLayout(device_.get(), &d));
  }

  void write_frame(const FrameValues& values) {
    StructView v(frame_layout_, std::span<std::byte>(frame_bytes_));
    v.set(frame_layout_.field("viewProjection"), values.view_projection);
    v.set(frame_layout_.field("lightWorldPosition"), values.light_world_position);
    v.set(frame_layout_.field("viewWorldPosition"), values.view_world_position);
    device_.write_buffer(frame_.get(), 0, frame_bytes_.data(), frame_bytes_.size());
  }

  const Device& device_;
  uint32_t object_count_;
  bool gpu_animation_, occlusion_;
  std::vector<uint32_t> moving_;  // Scene::moving: the objects whose transform changes with time
  MeshPool meshes_;
  MaterialTable materials_;
  ObjectTable objects_;
  std::unique_ptr<DepthPyramid> pyramid_;
  std::unique_ptr<IndirectDraws> draws_;
  std::unique_ptr<Culling> culling_;
  uint64_t render_generation_ = 0, records_uploaded_ = 0;
  StructLayout frame_layout_;
  std::vector<std::byte> frame_bytes_;
  gpu::Buffer frame_, inputs_, animate_frame_;
  gpu::BindGroupLayout object_layout_, material_layout_, animate_layout_;
  gpu::BindGroup object_group_, material_group_, animate_group_;
  gpu::PipelineLayout render_pipeline_layout_, animate_pipeline_layout_;
  gpu::ShaderModule render_module_, animate_module_;
  gpu::RenderPipeline render_pipeline_;
  gpu::ComputePipeline animate_;
};

}  // namespace

extern const StrategyRow gpu_driven_row{
    {"gpu-driven",
     "meshes in one pool, objects in a GPU table, materials indexed, textures in 2D arrays by "
     "size; the GPU frustum- and occlusion-culls (depth pyramid, two phases) into (pipeline, "
     "mesh) bins and draws them with multi-draw-indirect where the device has it",
     "003: further ideas (GPU-driven culling, indirect draws, double buffering)"},
    [](const Device& device, const Scene& scene, const GpuScene&,
       const StrategyOptions& options) -> std::unique_ptr<Strategy> {
      return std::make_unique<GpuDrivenStrategy>(device, scene, options);
    },
    unavailable};

}  // namespace bindery::strategies
