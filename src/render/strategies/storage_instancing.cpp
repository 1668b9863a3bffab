// SPDX-License-Identifier: MIT
// --strategy storage-instancing: per-object data in a read-only storage array indexed by
// @builtin(instance_index), objects drawn in instanced batches (seeds 000, 002, 004).
//   group 0 (frame):    GlobalUniforms (FrameGroup).
//   group 1 (objects):  array<PerObjectUniforms> in a StorageArray at the natural array stride
//                       (112 bytes here, no dynamic-offset padding); its binding never changes,
//                       so it is bound once (once per chunk if the array exceeds one binding).
//   group 2 (material): as in dynamic-offsets (MaterialGroups).
// Objects are sorted by material; their storage elements follow that order, so every run of one
// material and one mesh (inside one chunk) is a single drawIndexed with instanceCount = the run's
// length and firstInstance = its first element. setBindGroup per frame = 2 + batches; draws =
// batches (20 for the article's 20 materials), not objects.
#include "shared_groups.hpp"
#include "strategy.hpp"

#include "bindery/encode/draw_list.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/data/storage_array.hpp"
#include "bindery_shaders.hpp"

namespace bindery::strategies {
namespace {

class StorageInstancingStrategy final : public Strategy {
 public:
  StorageInstancingStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : device_(device),
        gpu_(gpu),
        reflection_(reflect_checked(shaders::cubes_storage)),
        frame_(device, reflection_.struct_layout("GlobalUniforms")),
        materials_(device, scene, gpu, reflection_.struct_layout("MaterialUniforms")),
        writer_(reflection_.struct_layout("PerObjectUniforms")) {
    const BindingInfo* objects = reflection_.find_binding(1, 0);
    if (!objects || !objects->store_type)
      throw Error(ErrorKind::WgslType, "cubes_storage.wgsl: @group(1) @binding(0) is not a buffer");
    StorageArrayDesc sd;
    sd.label = "per-object storage";
    sd.element_size = reflection_.struct_layout("PerObjectUniforms").size;
    sd.array_stride = objects->store_type->stride;  // the WGSL array stride of the binding
    sd.slot_count = static_cast<uint32_t>(scene.objects.size());
    sd.binding = 0;
    sd.visibility = kStageVertex;
    objects_ = std::make_unique<StorageArray>(device, sd);

    WGPUBindGroupLayout layouts[storage_groups::kGroupCount] = {};
    layouts[storage_groups::kFrameGroup] = frame_.layout();
    layouts[storage_groups::kObjectsGroup] = objects_->bind_group_layout();
    layouts[storage_groups::kMaterialGroup] = materials_.layout();
    pipeline_layout_ = create_pipeline_layout(device, layouts, "storage instancing");
    module_ = device.create_shader_module("cubes_storage.wgsl", shaders::cubes_storage);
    pipeline_ =
        create_scene_pipeline(device, module_.get(), pipeline_layout_.get(), "storage instancing");

    // Element order = draw order sorted by material; slot_of_object_ maps back.
    DrawList list;
    list.reserve(scene.objects.size());
    for (uint32_t i = 0; i < scene.objects.size(); ++i)
      list.add({.pipeline = 0,
                .material = scene.objects[i].material,
                .mesh = scene.objects[i].mesh,
                .object_slot = i});
    list.sort(DrawOrder::material);
    slot_of_object_.resize(scene.objects.size());
    for (uint32_t slot = 0; slot < list.size(); ++slot) {
      const DrawItem& item = list.items()[slot];
      slot_of_object_[item.object_slot] = slot;
      const uint32_t chunk = objects_->chunk_of(slot);
      if (batches_.empty() || batches_.back().material != item.material ||
          batches_.back().mesh != item.mesh || batches_.back().chunk != chunk) {
        batches_.push_back({item.material, item.mesh, chunk, objects_->index_in_chunk(slot), 0});
      }
      batches_.back().count++;
    }
    with_context("creating the storage-instancing strategy", [&] { device.check(); });
  }

  uint64_t object_stride() const override { return objects_->stride(); }

  void upload(const FrameInputs& in, WGPUCommandEncoder) override {
    frame_.update(in.values);
    for (uint32_t i = in.changed_begin; i < in.changed_end; ++i) {
      const uint32_t slot = slot_of_object_[i];
      writer_.write(objects_->slot_data(slot), in.transforms[i]);
      objects_->mark_dirty(slot);
    }
    objects_->flush();
  }

  uint32_t draw_count() const override { return static_cast<uint32_t>(batches_.size()); }

  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last,
              Counters& counters) override {
    RenderPassState state(pass, counters, IntruderPolicy::build_default, &device_.limits());
    for (const Batch& b : std::span<const Batch>(batches_).subspan(first, last - first)) {
      const GpuMesh& mesh = gpu_.meshes[b.mesh];
      state.set_pipeline(pipeline_.get());
      state.set_bind_group(storage_groups::kFrameGroup, frame_.bind_group(), {}, Frequency::frame,
                           0);
      state.set_bind_group(storage_groups::kObjectsGroup, objects_->bind_group(b.chunk), {},
                           Frequency::frame, 0);
      state.set_bind_group(storage_groups::kMaterialGroup, materials_.bind_group(b.material), {},
                           Frequency::material,
                           b.material);
      state.set_vertex_buffer(0, mesh.vertices, mesh.vertex_offset, mesh.vertex_bytes);
      state.set_index_buffer(mesh.indices, mesh.index_format, mesh.index_offset,
                             mesh.index_bytes);
      state.draw_indexed(mesh.index_count, b.count, 0, 0, b.first_instance);
    }
  }

 private:
  struct Batch {
    uint32_t material, mesh, chunk, first_instance, count;
  };
  const Device& device_;
  const GpuScene& gpu_;
  Reflection reflection_;
  FrameGroup frame_;
  MaterialGroups materials_;
  ObjectWriter writer_;
  std::unique_ptr<StorageArray> objects_;
  gpu::PipelineLayout pipeline_layout_;
  gpu::ShaderModule module_;
  gpu::RenderPipeline pipeline_;
  std::vector<uint32_t> slot_of_object_;
  std::vector<Batch> batches_;
};

}  // namespace

extern const StrategyRow storage_instancing_row{
    {"storage-instancing",
     "a read-only storage array indexed by instance_index; one instanced draw per (material, "
     "mesh) batch",
     "000/002/004: storage buffers and instancing"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<StorageInstancingStrategy>(device, scene, gpu);
    },
    nullptr,
    /*parallel_encode=*/true};

}  // namespace bindery::strategies
