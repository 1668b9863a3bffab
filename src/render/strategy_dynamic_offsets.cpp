// --strategy dynamic-offsets: bind groups by frequency (seeds 000, 001, 003).
//   group 0 (frame):    GlobalUniforms, one buffer, one writeBuffer per frame, bound once.
//   group 1 (material): texture + sampler + MaterialUniforms, written once at creation, one bind
//                       group per material; draws are sorted by material so each is bound once.
//   group 2 (object):   PerObjectUniforms for every object in one DynamicUniformBuffer: one
//                       bind group, a dynamic offset per draw, stride = align_to(SizeOf,
//                       device minUniformBufferOffsetAlignment), dirty slots flushed once a frame.
// setBindGroup calls per frame = 1 + materials used + objects. Offsets come from reflection.
//
// --strategy mapped-staging is the same layout with the article's last upload step (seed 003,
// "mapped transfer buffers"): the changed objects are written straight into a mapped
// MAP_WRITE | COPY_SRC block of a StagingRing and copied into the per-object buffer with
// copyBufferToBuffer before the pass, instead of queue.writeBuffer from a CPU shadow copy.
//
// --strategy render-bundles records the same draws once into render bundles (WebGPU §17.2; one
// per render pass range) and replays them each frame with executeBundles: the per-object data
// still changes every frame (the bundles bind the buffer, not its contents), but no draw call is
// encoded per frame (seed 003's "further ideas").
#include "shared_groups.hpp"
#include "strategy.hpp"

#include "bindery/draw_list.hpp"
#include "bindery/dynamic_uniform_buffer.hpp"
#include "bindery/layout_builder.hpp"
#include "bindery/staging_ring.hpp"
#include "bindery_shaders.hpp"

#include <algorithm>
#include <map>

namespace bindery::strategies {
namespace {

class DynamicOffsetsStrategy final : public Strategy {
 public:
  /// How per-object data reaches its buffer.
  enum class Upload { write_buffer, mapped_staging };

  /// How draws reach the pass.
  enum class Encode { direct, render_bundles };

  DynamicOffsetsStrategy(const Device& device, const Scene& scene, const GpuScene& gpu,
                         Upload upload, Encode encode)
      : device_(device),
        use_bundles_(encode == Encode::render_bundles),
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
    if (upload == Upload::mapped_staging)
      staging_ = std::make_unique<StagingRing>(device, StagingRingDesc{"per-object staging", 0});

    WGPUBindGroupLayout layouts[] = {frame_.layout(), materials_.layout(),
                                     objects_->bind_group_layout()};
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
    with_context("creating the dynamic-offsets strategy", [&] { device.check(); });
  }

  uint64_t object_stride() const override { return objects_->stride(); }

  /// The changed objects [changed_begin, changed_end) are one run of slots: for each chunk they
  /// span, written straight into one mapped block at the buffer's stride and copied with one
  /// copyBufferToBuffer (a block never exceeds its chunk, so never maxBufferSize).
  void upload_through_staging(const FrameInputs& in, WGPUCommandEncoder encoder) {
    const uint64_t stride = objects_->stride();
    const SlotLayout& layout = objects_->slot_layout();
    for (uint32_t slot = in.changed_begin; slot < in.changed_end;) {
      const uint32_t chunk = objects_->chunk_of(slot);
      const uint32_t end =
          std::min<uint64_t>(in.changed_end, uint64_t(chunk + 1) * layout.slots_per_chunk);
      const StagingBlock block = staging_->acquire(uint64_t(end - slot) * stride);
      for (uint32_t i = slot; i < end; ++i)
        writer_.write(block.data.subspan(uint64_t(i - slot) * stride, objects_->element_size()),
                      in.transforms[i]);
      staging_->copy(encoder, block, 0, objects_->buffer(chunk), layout.offset_in_chunk(slot),
                     uint64_t(end - slot) * stride);
      slot = end;
    }
  }

  void upload(const FrameInputs& in, WGPUCommandEncoder encoder) override {
    frame_.update(in.values);
    if (staging_) {
      upload_through_staging(in, encoder);
      return;
    }
    // Only the objects that changed are written and marked dirty; flush() uploads them in one
    // writeBuffer or a few coalesced ranges.
    for (uint32_t i = in.changed_begin; i < in.changed_end; ++i) {
      writer_.write(objects_->slot_data(i), in.transforms[i]);
      objects_->mark_dirty(i);
    }
    objects_->flush();
  }

  void after_submit() override {
    if (staging_) staging_->after_submit();
  }

  uint32_t draw_count() const override { return static_cast<uint32_t>(draws_.size()); }

  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last) override {
    if (!use_bundles_) {
      RenderPassState state(pass, device_.counters(), IntruderPolicy::build_default,
                            &device_.limits());
      encode_range(state, first, last);
      return;
    }
    // Render bundles: recorded the first time this pass range is drawn, replayed after that.
    auto it = bundles_.find(first);
    const bool recorded_now = it == bundles_.end();
    if (recorded_now) it = bundles_.emplace(first, record_bundle(first, last)).first;
    RenderPassState state(pass, device_.counters(), IntruderPolicy::build_default,
                          &device_.limits());
    const WGPURenderBundle bundle = it->second.get();
    state.execute_bundles({&bundle, 1});
    if (!recorded_now) device_.counters().draws += last - first;  // replayed, not re-encoded
  }

  /// The draws [first, last) through a redundant-state tracker: the frame group is set once, the
  /// material group once per material, the object group every draw with its dynamic offset.
  template <class State>
  void encode_range(State& state, uint32_t first, uint32_t last) {
    for (const DrawItem& item : draws_.items().subspan(first, last - first)) {
      const GpuMesh& mesh = gpu_.meshes[item.mesh];
      state.set_pipeline(pipeline_.get());
      state.set_bind_group(0, frame_.bind_group(), {}, Frequency::frame, 0);
      state.set_bind_group(1, materials_.bind_group(item.material), {}, Frequency::material,
                           item.material);
      const uint32_t offset = objects_->dynamic_offset(item.object_slot);
      state.set_bind_group(2, objects_->bind_group(objects_->chunk_of(item.object_slot)),
                           {&offset, 1}, Frequency::object, item.object_slot);
      state.set_vertex_buffer(0, mesh.vertices.get(), 0, mesh.vertex_bytes);
      state.set_index_buffer(mesh.indices.get(), mesh.index_format, 0, mesh.index_bytes);
      state.draw_indexed(mesh.index_count);
    }
  }

  gpu::RenderBundle record_bundle(uint32_t first, uint32_t last) {
    const WGPUTextureFormat color = kColorFormat;
    WGPURenderBundleEncoderDescriptor d = WGPU_RENDER_BUNDLE_ENCODER_DESCRIPTOR_INIT;
    d.label = gpu::sv("dynamic-offset draws");
    d.colorFormatCount = 1;
    d.colorFormats = &color;
    d.depthStencilFormat = kDepthFormat;
    d.sampleCount = 1;
    gpu::RenderBundleEncoder encoder =
        gpu::RenderBundleEncoder::acquire(wgpuDeviceCreateRenderBundleEncoder(device_.get(), &d));
    {
      RenderBundleState state(encoder.get(), device_.counters(), IntruderPolicy::build_default,
                              &device_.limits());
      encode_range(state, first, last);
    }
    gpu::RenderBundle bundle =
        gpu::RenderBundle::acquire(wgpuRenderBundleEncoderFinish(encoder.get(), nullptr));
    with_context("recording a render bundle", [&] { device_.check(); });
    return bundle;
  }

 private:
  const Device& device_;
  bool use_bundles_;
  const GpuScene& gpu_;
  Reflection reflection_;
  FrameGroup frame_;
  MaterialGroups materials_;
  ObjectWriter writer_;
  std::unique_ptr<DynamicUniformBuffer> objects_;
  std::unique_ptr<StagingRing> staging_;           ///< mapped-staging only
  std::map<uint32_t, gpu::RenderBundle> bundles_;  ///< render-bundles: first draw -> bundle
  gpu::PipelineLayout pipeline_layout_;
  gpu::ShaderModule module_;
  gpu::RenderPipeline pipeline_;
  DrawList draws_;
};

}  // namespace

std::unique_ptr<Strategy> make_dynamic_offsets_strategy(const Device& device, const Scene& scene,
                                                        const GpuScene& gpu) {
  return std::make_unique<DynamicOffsetsStrategy>(device, scene, gpu,
                                                  DynamicOffsetsStrategy::Upload::write_buffer,
                                                  DynamicOffsetsStrategy::Encode::direct);
}

std::unique_ptr<Strategy> make_render_bundles_strategy(const Device& device, const Scene& scene,
                                                       const GpuScene& gpu) {
  return std::make_unique<DynamicOffsetsStrategy>(device, scene, gpu,
                                                  DynamicOffsetsStrategy::Upload::write_buffer,
                                                  DynamicOffsetsStrategy::Encode::render_bundles);
}

std::unique_ptr<Strategy> make_mapped_staging_strategy(const Device& device, const Scene& scene,
                                                       const GpuScene& gpu) {
  return std::make_unique<DynamicOffsetsStrategy>(device, scene, gpu,
                                                  DynamicOffsetsStrategy::Upload::mapped_staging,
                                                  DynamicOffsetsStrategy::Encode::direct);
}

}  // namespace bindery::strategies
