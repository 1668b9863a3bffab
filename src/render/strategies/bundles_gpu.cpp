// SPDX-License-Identifier: MIT
// --strategy bundles-gpu: every object its own drawIndexed, recorded once into render bundles
// (WebGPU §17.1; one bundle per render pass range) and replayed with executeBundles, over the
// scene held in bindery's GPU-driven parts (GpuObjectScene: the mesh pool, the object table, the
// material table). The article's animation runs on the GPU and writes every object record each
// frame (shaders/object_animate.wgsl, the producer gpu-driven uses), so the CPU per frame writes
// the animation's and the draw's frame uniforms, records one dispatch and one executeBundles per
// pass, and nothing per object (the webgpufundamentals optimization article's further ideas:
// render bundles, compute). Unlike gpu-driven nothing is culled: every object is drawn, one
// draw each, its firstInstance its object id, read through an identity instance remap by the
// shared draw shader (shaders/gpu_driven_draw.wgsl: objects[remap[instance_index]]).
//   compute "animate": every object record's world matrix at the frame's time.
//   render  "render":  the bundles: pipeline, groups, the pool's vertex and index buffers once,
//                      then drawIndexed(indexCount, 1, firstIndex, baseVertex, object) per object
//                      in material order.
#include "gpu_object_scene.hpp"
#include "object_animation.hpp"
#include "strategy.hpp"

#include "bindery/encode/draw_list.hpp"

#include <fmt/format.h>

#include <map>
#include <numeric>

namespace bindery::strategies {
namespace {

using namespace bindery::gpu_driven;

// Why the strategy cannot run on this device and scene, or nullopt.
std::optional<std::string> unavailable(const Device& device, const Scene& scene) {
  if (std::optional<std::string> why = gpu_animation_unavailable(device, scene)) return why;
  return object_records_unavailable(device, scene);
}

class BundlesGpuStrategy final : public Strategy {
 public:
  BundlesGpuStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : device_(device),
        scene_(device, scene, gpu, "bundles-gpu", TransformProducer::gpu_when_animated) {
    // The identity remap: the draw of object i has firstInstance i and reads objects[remap[i]].
    const uint32_t n = scene_.object_count();
    std::vector<uint32_t> identity(std::max(n, 1u));
    std::iota(identity.begin(), identity.end(), 0u);
    remap_ = device.create_buffer("bundles-gpu identity remap", identity.size() * 4,
                                  WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst);
    device.write_buffer(remap_.get(), 0, identity.data(), identity.size() * 4);
    scene_.refresh_object_group(remap_.get(), true);
    // Draw order: material > mesh (draw_list.hpp), as the CPU strategies draw.
    draws_.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
      draws_.add({.pipeline = 0,
                  .material = scene.objects[i].material,
                  .mesh = scene.objects[i].mesh,
                  .object_slot = i});
    draws_.sort(DrawOrder::material);
    with_context("creating the bundles-gpu strategy", [&] { device.check(); });
  }

  bool needs_cpu_transforms() const override { return false; }
  uint64_t object_stride() const override { return kObjectRecordBytes; }
  uint32_t draw_count() const override { return static_cast<uint32_t>(draws_.size()); }

  /// The frame's uniforms (animation, draw); nothing per object.
  void upload(const FrameInputs& in, WGPUCommandEncoder encoder) override {
    scene_.upload(in, encoder);
    scene_.refresh_object_group(remap_.get(), false);
  }

  void after_submit() override { scene_.after_submit(); }

  /// upload(), the compute pass "animate" writing every object record, then the bundles.
  void record_frame(FrameContext& ctx) override {
    upload(ctx.in, ctx.encoder);
    if (scene_.object_count() > 0) {
      TimedComputePass pass(ctx, "animate");
      scene_.animate(pass);
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
      const auto groups = scene_.groups();
      const MeshPool& meshes = scene_.meshes();
      for (const DrawItem& item : draws_.items().subspan(first, last - first)) {
        const MeshRange& mesh = meshes.range(item.mesh);
        state.set_pipeline(scene_.pipeline());
        state.set_bind_group(GpuObjectScene::kObjectGroup, groups[0], {}, Frequency::frame, 0);
        state.set_bind_group(GpuObjectScene::kMaterialGroup, groups[1], {}, Frequency::frame, 0);
        state.set_vertex_buffer(0, meshes.vertex_buffer(), 0, wgpuBufferGetSize(meshes.vertex_buffer()));
        state.set_index_buffer(meshes.index_buffer(), WGPUIndexFormat_Uint32, 0,
                               wgpuBufferGetSize(meshes.index_buffer()));
        state.draw_indexed(mesh.index_count, 1, mesh.first_index, mesh.base_vertex,
                           item.object_slot);
      }
    }
    gpu::RenderBundle bundle =
        gpu::RenderBundle::acquire(wgpuRenderBundleEncoderFinish(encoder.get(), nullptr));
    with_context("recording a bundles-gpu render bundle", [&] { device_.check(); });
    return bundle;
  }

  const Device& device_;
  GpuObjectScene scene_;
  gpu::Buffer remap_;
  DrawList draws_;
  std::map<uint32_t, gpu::RenderBundle> bundles_;  ///< first draw of a pass range -> bundle
};

}  // namespace

extern const StrategyRow bundles_gpu_row{
    {"bundles-gpu",
     "one draw per object recorded once into render bundles over gpu-driven's parts (mesh pool, "
     "object table, material table); a compute pass writes every object record (the article's "
     "animation on the GPU); nothing per object on the CPU",
     "003: further ideas (render bundles, GPU-computed per-object data)"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<BundlesGpuStrategy>(device, scene, gpu);
    },
    unavailable,
    /*parallel_encode=*/false,
    /*own_textures=*/true};

}  // namespace bindery::strategies
