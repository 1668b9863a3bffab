// SPDX-License-Identifier: MIT
// --strategy render-bundles: the dynamic-offsets draws (by_frequency.hpp) recorded once into
// render bundles (WebGPU §17.2; one per render pass range) and replayed each frame with
// executeBundles: the per-object data still changes every frame (the bundles bind the buffer,
// not its contents), but no draw call is encoded per frame (seed 003's "further ideas").
#include "by_frequency.hpp"

#include <map>

namespace bindery::strategies {
namespace {

class RenderBundlesStrategy final : public ByFrequencyStrategy {
 public:
  RenderBundlesStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : ByFrequencyStrategy(device, scene, gpu, "render-bundles") {}

  void upload(const FrameInputs& in, WGPUCommandEncoder) override {
    frame_.update(in.values);
    write_changed_objects(in);
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

 private:
  gpu::RenderBundle record_bundle(uint32_t first, uint32_t last, Counters& counters) {
    gpu::RenderBundleEncoder encoder = create_scene_bundle_encoder(device_, "dynamic-offset draws");
    {
      RenderBundleState state(encoder.get(), counters, IntruderPolicy::build_default,
                              &device_.limits());
      encode_range(state, first, last);
    }
    gpu::RenderBundle bundle =
        gpu::RenderBundle::acquire(wgpuRenderBundleEncoderFinish(encoder.get(), nullptr));
    with_context("recording a render bundle", [&] { device_.check(); });
    return bundle;
  }

  std::map<uint32_t, gpu::RenderBundle> bundles_;  ///< first draw of a pass range -> bundle
};

}  // namespace

extern const StrategyRow render_bundles_row{
    {"render-bundles",
     "dynamic-offsets, the draws recorded once into render bundles and replayed with "
     "executeBundles",
     "003: further ideas (render bundles)"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<RenderBundlesStrategy>(device, scene, gpu);
    }};

}  // namespace bindery::strategies
