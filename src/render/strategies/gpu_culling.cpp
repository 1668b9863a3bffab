// SPDX-License-Identifier: MIT
// --strategy gpu-culling: GPU-driven frustum culling and indirect draws (seed 003's "further
// ideas": indirect draws with GPU frustum culling).
//
// Per frame: the per-object matrices go to a read-only storage array indexed by object (as in
// storage-instancing); the indirect arguments of every (material, mesh) batch are reset with one
// writeBuffer (instanceCount 0, firstInstance = the batch's window in the visible list); a
// compute pass (shaders/cull.wgsl, 64 objects per workgroup) tests each object's bounding sphere
// against the frustum and appends the visible ones; the render pass issues one
// drawIndexedIndirect per batch, and the vertex shader reads objects[visible[instance_index]].
// The CPU never learns how many objects were visible (visible_objects() reads it back for
// reports). Needs "indirect-first-instance" (a batch's window starts at firstInstance).
#include "shared_groups.hpp"
#include "strategy.hpp"

#include "bindery/encode/draw_list.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/data/storage_array.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <cstring>

namespace bindery::strategies {
namespace {

constexpr uint32_t kWorkgroupSize = 64;         // @workgroup_size in shaders/cull.wgsl
constexpr uint64_t kIndirectArgsBytes = 5 * 4;  // GPUDrawIndexedIndirect: five 32-bit values

class GpuCullingStrategy final : public Strategy {
 public:
  GpuCullingStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : device_(device),
        gpu_(gpu),
        reflection_(reflect_checked(shaders::cubes_gpu_cull)),
        cull_reflection_(reflect_checked(shaders::cull)),
        frame_(device, reflection_.struct_layout("GlobalUniforms")),
        materials_(device, scene, gpu, reflection_.struct_layout("MaterialUniforms")),
        writer_(reflection_.struct_layout("PerObjectUniforms")) {
    if (!device.has_indirect_first_instance())
      throw Error(ErrorKind::ImplementationLimit,
                  fmt::format("gpu-culling needs the indirect-first-instance feature, which {} "
                              "does not offer",
                              device.adapter().name));
    const uint32_t n = static_cast<uint32_t>(scene.objects.size());
    const uint64_t groups = (uint64_t(n) + kWorkgroupSize - 1) / kWorkgroupSize;
    if (groups > device.limits().maxComputeWorkgroupsPerDimension)
      throw Error(
          ErrorKind::ImplementationLimit,
          fmt::format("gpu-culling: {} objects need {} workgroups of {}, more than "
                      "maxComputeWorkgroupsPerDimension ({})",
                      n, groups, kWorkgroupSize, device.limits().maxComputeWorkgroupsPerDimension));
    object_count_ = n;

    // Per-object matrices, indexed by object (slot = object index).
    const BindingInfo* objects = reflection_.find_binding(1, 0);
    StorageArrayDesc sd;
    sd.label = "per-object storage (culled)";
    sd.element_size = reflection_.struct_layout("PerObjectUniforms").size;
    sd.array_stride = objects->store_type->stride;
    sd.slot_count = std::max(n, 1u);
    objects_ = std::make_unique<StorageArray>(device, sd);
    if (objects_->chunk_count() != 1)
      throw Error(ErrorKind::ImplementationLimit,
                  fmt::format("gpu-culling: {} objects of {} bytes exceed one storage binding "
                              "(maxStorageBufferBindingSize {})",
                              n, objects_->stride(), device.limits().maxStorageBufferBindingSize));

    // Batches: runs of one (material, mesh) in draw-list order; each owns a window of `visible`.
    DrawList list;
    for (uint32_t i = 0; i < n; ++i)
      list.add({.pipeline = 0,
                .material = scene.objects[i].material,
                .mesh = scene.objects[i].mesh,
                .object_slot = i});
    list.sort(DrawOrder::material);
    std::vector<uint32_t> batch_of(n);
    for (const DrawItem& item : list.items()) {
      if (batches_.empty() || batches_.back().material != item.material ||
          batches_.back().mesh != item.mesh) {
        const uint32_t first = batches_.empty() ? 0 : batches_.back().first + batches_.back().count;
        batches_.push_back({item.material, item.mesh, first, 0});
      }
      batches_.back().count++;
      batch_of[item.object_slot] = static_cast<uint32_t>(batches_.size() - 1);
    }

    // The reset image of the indirect arguments: instanceCount 0, firstInstance = window start.
    const StructLayout& args = cull_reflection_.struct_layout("DrawIndexedIndirect");
    if (args.size != kIndirectArgsBytes)
      throw Error(ErrorKind::StructMismatch, "cull.wgsl: DrawIndexedIndirect is not 20 bytes");
    indirect_reset_.resize(std::max<size_t>(batches_.size(), 1) * kIndirectArgsBytes);
    for (size_t b = 0; b < batches_.size(); ++b) {
      StructView v(args, std::span<std::byte>(indirect_reset_)
                             .subspan(b * kIndirectArgsBytes, kIndirectArgsBytes));
      v.set(args.field("indexCount"), gpu.meshes[batches_[b].mesh].index_count);
      v.set(args.field("instanceCount"), 0u);
      v.set(args.field("firstIndex"), 0u);
      v.set(args.field("baseVertex"), int32_t{0});
      v.set(args.field("firstInstance"), batches_[b].first);
    }
    indirect_ = device.create_buffer("indirect draws", indirect_reset_.size(),
                                     WGPUBufferUsage_Storage | WGPUBufferUsage_Indirect |
                                         WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc);
    visible_ = device.create_buffer("visible objects", std::max<uint64_t>(n, 1) * 4,
                                    WGPUBufferUsage_Storage);

    // Object-space bounding spheres and batch indices, written once.
    const StructLayout& cull_object = cull_reflection_.struct_layout("CullObject");
    std::vector<std::byte> spheres(std::max<size_t>(n, 1) * cull_object.size);
    for (uint32_t i = 0; i < n; ++i) {
      const Mesh& m = scene.meshes[scene.objects[i].mesh];
      const glm::vec3 center = (m.bounds_min + m.bounds_max) * 0.5f;
      const float radius = glm::length(m.bounds_max - m.bounds_min) * 0.5f;
      StructView v(cull_object, std::span<std::byte>(spheres).subspan(
                                    uint64_t(i) * cull_object.size, cull_object.size));
      v.set(cull_object.field("sphere"), glm::vec4(center, radius));
      v.set(cull_object.field("batch"), batch_of[i]);
    }
    cull_objects_ = device.create_buffer("cull objects", spheres.size(),
                                         WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst);
    device.write_buffer(cull_objects_.get(), 0, spheres.data(), spheres.size());

    const StructLayout& cull_uniforms = cull_reflection_.struct_layout("CullUniforms");
    cull_bytes_.resize(cull_uniforms.size);
    cull_uniform_ = device.create_buffer("cull uniforms", cull_uniforms.size,
                                         WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    create_cull_pipeline(cull_uniforms.size, cull_object.size);
    create_render_pipeline();
    with_context("creating the gpu-culling strategy", [&] { device.check(); });
  }

  uint64_t object_stride() const override { return objects_->stride(); }
  uint32_t draw_count() const override { return static_cast<uint32_t>(batches_.size()); }

  void upload(const FrameInputs& in, WGPUCommandEncoder encoder) override {
    frame_.update(in.values);
    for (uint32_t i = in.changed_begin; i < in.changed_end; ++i) {
      writer_.write(objects_->slot_data(i), in.transforms[i]);
      objects_->mark_dirty(i);
    }
    objects_->flush();
    const StructLayout& cu = cull_reflection_.struct_layout("CullUniforms");
    StructView v(cu, std::span<std::byte>(cull_bytes_));
    v.set(cu.field("viewProjection"), in.values.view_projection);
    v.set(cu.field("objectCount"), object_count_);
    device_.write_buffer(cull_uniform_.get(), 0, cull_bytes_.data(), cull_bytes_.size());
    device_.write_buffer(indirect_.get(), 0, indirect_reset_.data(), indirect_reset_.size());
    if (object_count_ == 0) return;

    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, nullptr);
    wgpuComputePassEncoderSetPipeline(pass, cull_pipeline_.get());
    wgpuComputePassEncoderSetBindGroup(pass, 0, cull_group_.get(), 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(
        pass, (object_count_ + kWorkgroupSize - 1) / kWorkgroupSize, 1, 1);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
  }

  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last,
              Counters& counters) override {
    RenderPassState state(pass, counters, IntruderPolicy::build_default, &device_.limits());
    for (uint32_t b = first; b < last; ++b) {
      const Batch& batch = batches_[b];
      const GpuMesh& mesh = gpu_.meshes[batch.mesh];
      state.set_pipeline(pipeline_.get());
      state.set_bind_group(0, frame_.bind_group(), {}, Frequency::frame, 0);
      state.set_bind_group(1, objects_group_.get(), {}, Frequency::frame, 0);
      state.set_bind_group(2, materials_.bind_group(batch.material), {}, Frequency::material,
                           batch.material);
      state.set_vertex_buffer(0, mesh.vertices.get(), 0, mesh.vertex_bytes);
      state.set_index_buffer(mesh.indices.get(), mesh.index_format, 0, mesh.index_bytes);
      state.draw_indexed_indirect(indirect_.get(), uint64_t(b) * kIndirectArgsBytes);
    }
  }

  std::optional<uint32_t> visible_objects() override {
    const uint64_t size = indirect_reset_.size();
    gpu::Buffer read = device_.create_buffer("indirect readback", size,
                                             WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
    gpu::CommandEncoder encoder =
        gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device_.get(), nullptr));
    wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), indirect_.get(), 0, read.get(), 0, size);
    gpu::CommandBuffer commands =
        gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
    WGPUCommandBuffer cmd = commands.get();
    wgpuQueueSubmit(device_.queue(), 1, &cmd);
    map_and_wait(device_, read.get(), WGPUMapMode_Read, size);
    const auto* words =
        static_cast<const uint32_t*>(wgpuBufferGetConstMappedRange(read.get(), 0, size));
    uint32_t visible = 0;
    for (size_t b = 0; b < batches_.size(); ++b) visible += words[b * 5 + 1];  // instanceCount
    wgpuBufferUnmap(read.get());
    return visible;
  }

 private:
  struct Batch {
    uint32_t material, mesh, first, count;
  };

  void create_cull_pipeline(uint64_t cull_uniform_size, uint64_t cull_object_size) {
    cull_layout_ = create_bind_group_layout(
        device_,
        {"cull",
         {{0, BindingKind::uniform_buffer, kStageCompute, false, cull_uniform_size, "cull"},
          {1, BindingKind::read_only_storage_buffer, kStageCompute, false, objects_->stride(),
           "objects"},
          {2, BindingKind::read_only_storage_buffer, kStageCompute, false, cull_object_size,
           "cullObjects"},
          {3, BindingKind::storage_buffer, kStageCompute, false, kIndirectArgsBytes, "draws"},
          {4, BindingKind::storage_buffer, kStageCompute, false, 4, "visible"}}});
    WGPUBindGroupEntry e[5] = {WGPU_BIND_GROUP_ENTRY_INIT, WGPU_BIND_GROUP_ENTRY_INIT,
                               WGPU_BIND_GROUP_ENTRY_INIT, WGPU_BIND_GROUP_ENTRY_INIT,
                               WGPU_BIND_GROUP_ENTRY_INIT};
    WGPUBuffer buffers[5] = {cull_uniform_.get(), objects_->buffer(0), cull_objects_.get(),
                             indirect_.get(), visible_.get()};
    for (uint32_t k = 0; k < 5; ++k) {
      e[k].binding = k;
      e[k].buffer = buffers[k];
      e[k].size = WGPU_WHOLE_SIZE;
    }
    WGPUBindGroupDescriptor bd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
    bd.label = gpu::sv("cull");
    bd.layout = cull_layout_.get();
    bd.entryCount = 5;
    bd.entries = e;
    cull_group_ = device_.create_bind_group(bd);
    WGPUBindGroupLayout layouts[] = {cull_layout_.get()};
    cull_pipeline_layout_ = create_pipeline_layout(device_, layouts, "cull");
    cull_module_ = device_.create_shader_module("cull.wgsl", shaders::cull);
    WGPUComputePipelineDescriptor cd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
    cd.label = gpu::sv("cull");
    cd.layout = cull_pipeline_layout_.get();
    cd.compute.module = cull_module_.get();
    cd.compute.entryPoint = gpu::sv("cull_objects");
    cull_pipeline_ =
        gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(device_.get(), &cd));
    with_context("creating the cull pipeline", [&] { device_.check(); });
  }

  void create_render_pipeline() {
    objects_layout_ = create_bind_group_layout(
        device_, {"objects + visible",
                  {{0, BindingKind::read_only_storage_buffer, kStageVertex, false,
                    objects_->stride(), "objects"},
                   {1, BindingKind::read_only_storage_buffer, kStageVertex, false, 4, "visible"}}});
    WGPUBindGroupEntry e[2] = {objects_->bind_group_entry(0), WGPU_BIND_GROUP_ENTRY_INIT};
    e[0].binding = 0;
    e[1].binding = 1;
    e[1].buffer = visible_.get();
    e[1].size = WGPU_WHOLE_SIZE;
    WGPUBindGroupDescriptor bd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
    bd.label = gpu::sv("objects + visible");
    bd.layout = objects_layout_.get();
    bd.entryCount = 2;
    bd.entries = e;
    objects_group_ = device_.create_bind_group(bd);
    WGPUBindGroupLayout layouts[] = {frame_.layout(), objects_layout_.get(), materials_.layout()};
    pipeline_layout_ = create_pipeline_layout(device_, layouts, "gpu culling");
    module_ = device_.create_shader_module("cubes_gpu_cull.wgsl", shaders::cubes_gpu_cull);
    pipeline_ =
        create_scene_pipeline(device_, module_.get(), pipeline_layout_.get(), "gpu culling");
  }

  const Device& device_;

  const GpuScene& gpu_;
  Reflection reflection_, cull_reflection_;
  FrameGroup frame_;
  MaterialGroups materials_;
  ObjectWriter writer_;
  uint32_t object_count_ = 0;
  std::unique_ptr<StorageArray> objects_;
  std::vector<Batch> batches_;
  std::vector<std::byte> indirect_reset_, cull_bytes_;
  gpu::Buffer indirect_, visible_, cull_objects_, cull_uniform_;
  gpu::BindGroupLayout cull_layout_, objects_layout_;
  gpu::BindGroup cull_group_, objects_group_;
  gpu::PipelineLayout cull_pipeline_layout_, pipeline_layout_;
  gpu::ShaderModule cull_module_, module_;
  gpu::ComputePipeline cull_pipeline_;
  gpu::RenderPipeline pipeline_;
};

}  // namespace

extern const StrategyRow gpu_culling_row{
    {"gpu-culling",
     "the storage array + a compute pass that frustum-culls CPU-computed matrices and fills "
     "indirect draws",
     "003: further ideas (GPU frustum culling, indirect draws)"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<GpuCullingStrategy>(device, scene, gpu);
    },
    [](const Device& device, const Scene&) -> std::optional<std::string> {
      if (device.has_indirect_first_instance()) return std::nullopt;
      return "needs the indirect-first-instance feature";
    },
    /*parallel_encode=*/true};

}  // namespace bindery::strategies
