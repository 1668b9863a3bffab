// SPDX-License-Identifier: MIT
// --strategy dynamic-offsets: bind groups by frequency (by_frequency.hpp), per-object data
// written into the DynamicUniformBuffer's CPU shadow and flushed with writeBuffer, one
// setBindGroup with a dynamic offset per draw (seed 003, "one large uniform buffer with
// dynamic offsets"; seeds 000, 001).
#include "by_frequency.hpp"

namespace bindery::strategies {
namespace {

class DynamicOffsetsStrategy final : public ByFrequencyStrategy {
 public:
  DynamicOffsetsStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : ByFrequencyStrategy(device, scene, gpu, "dynamic-offsets") {}

  void upload(const FrameInputs& in, WGPUCommandEncoder) override {
    frame_.update(in.values);
    write_changed_objects(in);
  }

  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last,
              Counters& counters) override {
    RenderPassState state(pass, counters, IntruderPolicy::build_default, &device_.limits());
    encode_range(state, first, last);
  }
};

}  // namespace

extern const StrategyRow dynamic_offsets_row{
    {"dynamic-offsets",
     "frame / material / object groups; one uniform buffer + one bind group, a dynamic offset "
     "per draw",
     "000: dynamic offsets; 001: bind groups by frequency"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<DynamicOffsetsStrategy>(device, scene, gpu);
    },
    nullptr,
    /*parallel_encode=*/true};

}  // namespace bindery::strategies
